"""What arcguard says and how it reads what is said: the wording of decisions (messages.py),
the names of decision kinds and stop classes (vocabulary.py), the text rules that read a turn's
last words (sentences.py, final_words.py), and the masking of secrets in text it keeps
(redact.py)."""
