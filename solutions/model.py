"""The lesson's model helper (model.js), in Python.

`ask(messages, sample)` asks an OpenAI-compatible endpoint (AI_URL) for a short answer.
When no model answers, for whatever reason, it prints one line saying why and returns
the recorded sample instead: it never raises.
plumbing.py (given) reads the settings (the environment, then a .env file) and says,
in a few words, why no model answered.
"""

from plumbing import Answer, check_model_address, model_settings, why_no_model

FALLBACK_LINE = {
    "fr": "Échantillon enregistré : aucun modèle n’a répondu ({reason}).",
    "en": "Recorded sample: no model answered ({reason}).",
}


def ask(messages: list, sample: str, max_tokens: int = 80) -> Answer:
    """The model's answer, or the recorded sample when no model answers."""
    settings = model_settings()  # .url (with /v1), .key, .model, .timeout (seconds), .lang
    # BEGIN SOLUTION model
    # fr: avec le SDK openai (import openai) : un client OpenAI sur settings.url avec la clé
    # fr: settings.key, un délai à lui (settings.timeout, en secondes) et aucun nouvel essai
    # fr: (max_retries=0) ; demandez une complétion de chat (settings.model, messages,
    # fr: max_tokens) et renvoyez Answer(le texte du premier choix, recorded=False).
    # fr: Si quoi que ce soit échoue : affichez FALLBACK_LINE avec la raison (why_no_model,
    # fr: fourni) et renvoyez Answer(sample, recorded=True). Facultatif : check_model_address
    # fr: (fourni) échoue tout de suite quand rien n’écoute, avant l’import d’openai.
    # en: with the openai SDK (import openai): an OpenAI client on settings.url with the key
    # en: settings.key, a timeout of its own (settings.timeout, in seconds) and no retries
    # en: (max_retries=0); ask for a chat completion (settings.model, messages, max_tokens)
    # en: and return Answer(the first choice's text, recorded=False).
    # en: If anything fails: print FALLBACK_LINE with the reason (why_no_model, given)
    # en: and return Answer(sample, recorded=True). Optional: check_model_address (given)
    # en: fails at once when nothing listens, before openai is imported.
    try:
        check_model_address(settings)  # nothing listens: say so now, without importing openai
        import openai

        client = openai.OpenAI(base_url=settings.url, api_key=settings.key,
                               timeout=settings.timeout, max_retries=0)
        response = client.chat.completions.create(model=settings.model, messages=messages,
                                                  max_tokens=max_tokens)
        text = response.choices[0].message.content
        if not text or not text.strip():
            raise IndexError("no text")
        return Answer(text.strip(), recorded=False)
    except Exception as error:
        reason = why_no_model(error, settings)
        print(FALLBACK_LINE[settings.lang].format(reason=reason), flush=True)
        return Answer(sample, recorded=True)
    # END SOLUTION
