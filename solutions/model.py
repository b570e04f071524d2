"""L’assistant du modèle de la leçon (model.js), en Python.
`ask(messages, sample)` demande une réponse courte à un modèle compatible OpenAI (AI_URL).
Quand aucun modèle ne répond, quelle qu’en soit la raison, il affiche une ligne qui dit
pourquoi et rend l’échantillon enregistré : il ne lève jamais. model_setup.py (fourni) lit
les réglages, dit pourquoi aucun modèle n’a répondu et lit la réponse (model_answer).
The lesson's model helper (model.js), in Python: `ask(messages, sample)` asks a model
(AI_URL) for a short answer; when none answers, it prints one line saying why and returns
the recorded sample: it never raises. model_setup.py (given) reads the settings and the answer.
"""

from model_setup import Answer, check_model_address, model_answer, model_settings, why_no_model

TEXTS = {
    "fr": {"fallback": "Échantillon enregistré : aucun modèle n’a répondu ({reason})."},
    "en": {"fallback": "Recorded sample: no model answered ({reason})."},
}


def ask(messages: list, sample: str, max_tokens: int = 80) -> Answer:
    """La réponse du modèle, sinon l’échantillon enregistré / the model's answer, else the recorded sample."""
    settings = model_settings()  # .url (avec /v1), .key, .model, .timeout (secondes / seconds), .lang
    # BEGIN SOLUTION model
    # fr: ce que promet demander (model.js) : poser la question au modèle (AI_URL, avec sa clé
    # fr: et son nom de modèle : les réglages), par le SDK openai, et rendre son texte, marqué
    # fr: comme venant du modèle (model_answer, fourni, lit la réponse). Une requête a son
    # fr: propre délai (le réglage timeout) et n’est jamais réessayée : le client attend une
    # fr: réponse, pas une file d’essais. Si quoi que ce soit échoue, rendre l’échantillon,
    # fr: marqué comme enregistré, après la ligne "fallback" qui dit pourquoi (why_no_model,
    # fr: fourni, trouve la raison) : ask ne lève jamais.
    # fr: check_model_address (fourni) dit aussitôt quand rien ne répond à AI_URL ou qu’un
    # fr: réglage est faux, sans attendre le délai : appelez-le avant la requête ; il lève une
    # fr: erreur que why_no_model sait dire, comme celles de la requête.
    # en: what demander (model.js) promises: ask the model (AI_URL, with its key and model name:
    # en: the settings), through the openai SDK, and return its text, marked as coming from the
    # en: model (model_answer, given, reads the response). A request has its own deadline (the
    # en: timeout setting) and is never retried: the client waits for an answer, not a queue of
    # en: attempts. If anything fails, return the sample, marked as recorded, after the
    # en: "fallback" line saying why (why_no_model, given, finds the reason): ask never raises.
    # en: check_model_address (given) tells at once when nothing answers at AI_URL or a setting
    # en: is wrong, without waiting for the deadline: call it before the request; it raises an
    # en: error why_no_model can say, as the request's errors are.
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
