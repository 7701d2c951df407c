package hub
