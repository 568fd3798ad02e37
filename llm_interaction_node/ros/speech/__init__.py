"""Speech pieces the speech nodes use: audio messages and WAV files, the utterance
segmenter (ASR engine) and the Whisper recogniser."""
