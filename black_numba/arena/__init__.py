"""The match runner: two UCI engines play game pairs as Dask tasks; Elo and SPRT."""
