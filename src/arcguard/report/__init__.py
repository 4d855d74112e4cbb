"""The session report: a timeline of each recorded session with arcguard's decisions from a
replay on the recorded clock beside it (`session`), for a terminal (`text`) or as one HTML
page (`html`)."""
