"""The built-in fact extractors, one module each (registered in ``FACT_EXTRACTORS``):
``corenlp`` reads page text with Stanford CoreNLP, ``llm`` reads the claims with a chat model."""
