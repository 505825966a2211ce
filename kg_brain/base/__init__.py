"""The base: closed vocabularies, time, configuration (the only reader of the environment),
input checks, errors, the loader of `cypher/` and the files only the user reads."""
