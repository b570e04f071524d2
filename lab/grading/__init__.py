"""Instructor grading: `lab grade` runs the graded checks on a class, safely, in parallel,
and writes the formats the platforms read (Gradescope, Exercism, GitHub Classroom, JUnit, CSV).

- runner.py: one submission in a sandboxed child process (limits, caps, kill), always a Report
  (forked by the class's preloader, lab/process/preloader.py, with the kit and openai loaded)
- private_copy.py: the private copy each submission is graded in, within its caps
- catalogue.py: the list of checks, for runs that could not finish; guards a child's report
- formats.py: Report -> each format (kit errors with a status of their own)
- hygiene.py: control characters escaped and CSV formulas neutralised, before any format
- classroom.py: the class in parallel, output folders, summary CSV, retries of resource failures
- capacity.py: how many submissions at once, within the host's CPU, process and memory limits
- readback.py: an output folder read back (summary.csv, grading.json, each submission's .lab-report.json)
- class_stats.py: the class report's figures; class_report.py: report.html and grading.json
- progress.py: the terminal progress bar
- bundle.py: the Gradescope autograder zip, and which folder of an upload is graded
- commands.py: `lab grade`, `lab report` and `lab gradescope-bundle`, added to the `lab` group
"""
