"""The board: bitboards, the position array, rules, legal move generation, perft."""
