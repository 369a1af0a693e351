"""The rules engine: state arrays, the frame machine and the rule handlers."""
