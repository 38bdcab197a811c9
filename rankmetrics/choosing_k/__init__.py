"""Choosing K: how the order of the models, the tests and the ties change with the cutoff."""
