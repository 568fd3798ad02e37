"""Interaction memory: example transcripts in ChromaDB, retrieved by user utterances."""
