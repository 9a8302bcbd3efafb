"""The lobby actor and its tables: the shared, in-memory heart of the server."""
