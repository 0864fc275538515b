"""User code in a child process per session: the worker (`python -m tensorscope.worker`), its
limits, the JSON wire format, and `WorkerSession`, the front ends' client.

Importing this package imports nothing else: the worker sets its limits before the engine loads.
"""
