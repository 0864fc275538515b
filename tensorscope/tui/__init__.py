"""The explorer: a Textual app whose panes render Snapshots of a Session.

Nothing here imports the engine: panes receive Snapshots (plain data) from the app, and the app
talks to a `tensorscope.session.Session`, which it creates in a worker so the first paint does not
wait for the engine to import.
"""
