"""Tests of matchdb.cli."""
