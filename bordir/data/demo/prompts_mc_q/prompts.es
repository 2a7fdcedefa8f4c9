¿Es Ceuta un territorio de A) Marruecos o B) España?
¿Son las Islas Malvinas un territorio de A) Argentina o B) Reino Unido?
