"""Programs the checks run in child processes (spies, the model runner). Not checks themselves."""
