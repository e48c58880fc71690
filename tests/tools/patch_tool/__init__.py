"""Generators of the apply-patch and tool-call corpus cases."""
