"""The lesson's model.js, written in Python as a student who follows the lesson would.

Independent of solutions/: the openai client with its own time limit, and the
recorded sample when no model answers, its reason said by why_no_model (given).
Mutated one line at a time by tests/test_checks_mistakes.py: keep each replaced line unique.
"""

import os
from typing import NamedTuple

import openai
from model_setup import model_settings, why_no_model


class Answer(NamedTuple):
    text: str
    recorded: bool


def ask(messages, sample, max_tokens=80):
    base = os.environ.get("AI_URL", "http://ai:4000")
    delai = float(os.environ.get("AI_TIMEOUT", "30"))
    try:
        client = openai.OpenAI(base_url=base + "/v1", api_key=os.environ.get("AI_KEY", "lab"),
                               timeout=delai, max_retries=0)
        reponse = client.chat.completions.create(model=os.environ.get("AI_MODEL", "lab"), messages=messages,
                                                 max_tokens=max_tokens)
        return Answer(reponse.choices[0].message.content, False)
    except Exception as erreur:
        print(f"Échantillon enregistré : aucun modèle n’a répondu ({why_no_model(erreur, model_settings())}).")
        return Answer(sample, True)
