"""The lesson's model helper (model.js), in Python.

`ask(messages, sample)` asks an OpenAI-compatible endpoint (AI_URL) for a short answer.
When no model answers, for whatever reason, it prints one line saying why and returns
the recorded sample instead: it never raises.
model_setup.py (given) reads the settings (the environment, then a .env file), says in a
few words why no model answered, and reads the model's answer (model_answer: one line, "…"
when it was cut, and a warning with the sample when the sentence looks wrong).
"""

from model_setup import Answer, check_model_address, model_answer, model_settings, why_no_model

TEXTS = {
    "fr": {"fallback": "Échantillon enregistré : aucun modèle n’a répondu ({reason})."},
    "en": {"fallback": "Recorded sample: no model answered ({reason})."},
}


def ask(messages: list, sample: str, max_tokens: int = 80) -> Answer:
    """The model's answer, or the recorded sample when no model answers."""
    settings = model_settings()  # .url (with /v1), .key, .model, .timeout (seconds), .lang
    # BEGIN SOLUTION model
    # fr: ce que promet demander (model.js) : poser la question au modèle (AI_URL, avec sa clé
    # fr: et son nom de modèle : les réglages), par le SDK openai, et rendre son texte, marqué
    # fr: comme venant du modèle (model_answer, fourni, lit la réponse). Une requête a son propre
    # fr: délai (le réglage timeout) et n’est jamais réessayée : le client attend une réponse,
    # fr: pas une file d’essais. Si quoi que ce soit échoue, rendre l’échantillon, marqué comme
    # fr: enregistré, après la ligne "fallback" qui dit pourquoi (why_no_model, fourni, trouve
    # fr: la raison) : ask ne lève jamais.
    # en: what demander (model.js) promises: ask the model (AI_URL, with its key and model
    # en: name: the settings), through the openai SDK, and return its text, marked as coming
    # en: from the model (model_answer, given, reads the response). A request has its own
    # en: deadline (the timeout setting) and is never retried: the client waits for an answer,
    # en: not a queue of attempts. If anything fails, return the sample, marked as recorded,
    # en: after the "fallback" line saying why (why_no_model, given, finds the reason): ask
    # en: never raises.
    try:
        check_model_address(settings)  # nothing listens: say so now, without importing openai
        import openai

        client = openai.OpenAI(base_url=settings.url, api_key=settings.key,
                               timeout=settings.timeout, max_retries=0)
        response = client.chat.completions.create(model=settings.model, messages=messages,
                                                  max_tokens=max_tokens)
        return model_answer(response, messages, sample, settings.lang)  # Answer(text, recorded=False)
    except Exception as error:
        reason = why_no_model(error, settings)
        print(TEXTS[settings.lang]["fallback"].format(reason=reason), flush=True)
        return Answer(sample, recorded=True)
    # END SOLUTION
