"""Instructor grading: `lab grade` runs the graded checks on a class, safely, in parallel, and
writes the formats the platforms read. Each module says its one job; classroom.py is the entry.
"""
