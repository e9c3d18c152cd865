"""Mutation testing: small changes to a module, each run against the tests that cover it.

A mutant the tests do not notice (it "survives") marks a rule no test holds at its edge. Python's
operators, constants, calls and raises are changed one at a time, and so are the regular expressions
that guard command lines: a character class one hostile character wider, an escaped dot turned into
any character, a length limit one longer. Each mutant runs in a forked child of one warm process, so
a module's few hundred mutants take minutes, not the hour one interpreter per mutant would.
"""
