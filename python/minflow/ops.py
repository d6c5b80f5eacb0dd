"""One function per registered op, in snake_case (mat_mul, add_v2,
examples_zero_out, ...), made from the OpDefs when minflow is imported and
when minflow.load_op_library loads a library (see op_gen.py)."""
