"""What the user sees of both features: the status line segment and one-line notices.

The top floor of the core: it reads the arc keeper and the loop guard, and nothing reads it.
"""
