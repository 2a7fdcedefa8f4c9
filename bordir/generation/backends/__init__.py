"""Built-in backends (each imports its SDK only when used)."""
