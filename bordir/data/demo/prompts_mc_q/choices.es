["Marruecos", "España"]
["Argentina", "Reino Unido"]
