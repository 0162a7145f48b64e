"""Tests of matchdb.play."""
