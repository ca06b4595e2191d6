"""tricklog schemas: the warehouse DDL (warehouse.sql) and the pandera models of its tables."""
