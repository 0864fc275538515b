"""One module per pane; each renders a Snapshot (and the selected name) and has a HELP text."""
