"""The arc keeper: a stop in the middle of the work is sent back, within hard caps.

Stop decisions, how a final message hands the turn back, the arc itself, the posture stated at
a prompt, session lifecycle events, /goal, usage-limit waits and the hand-over to Claude Code's
own resume. It may read the loop guard (a stop closes the guard's turn); the guard never reads it.
"""
