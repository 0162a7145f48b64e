"""tests/play/data holds bot files the tests load by path (a PyPokerEngine player among them): not test modules."""

collect_ignore_glob = ["data/*"]
