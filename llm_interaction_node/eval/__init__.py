"""Evaluation of the tabletop tasks: instruction templates, scenes, success checks, scripted \
solutions."""
