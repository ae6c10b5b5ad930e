"""Camera: find Spanish-deck cards in a frame, read them, and check shown envidos."""
