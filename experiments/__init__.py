"""Experiments: the demo, self-play games and (later) training and balance studies."""
