"""Tests of matchdb.equity."""
