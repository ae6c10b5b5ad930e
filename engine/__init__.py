"""truco-referee."""
