"""Playing poker: the articles' decision rules, the no-limit hold'em engine, hand strength for bots, the bots, games, the arena and tuning."""
