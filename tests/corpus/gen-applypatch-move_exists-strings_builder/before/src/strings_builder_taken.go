taken
