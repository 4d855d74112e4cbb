"""The loop guard: repeated no-progress tool calls are denied, repeating cycles are paused.

Its modules read the records and helpers of `arcguard.core` and each other, never the arc
keeper's: the arc keeper closes the guard's turn at a stop, so the guard sits one floor below it.
"""
