"""A correct model helper written with urllib, as the lesson's model.js uses fetch: it never
imports openai, and says why no model answered with the given why_no_model."""

import json
import urllib.request

from model_setup import Answer, check_model_address, model_settings, why_no_model

TEXTS = {
    "fr": "Échantillon enregistré : aucun modèle n’a répondu ({reason}).",
    "en": "Recorded sample: no model answered ({reason}).",
}


def ask(messages, sample, max_tokens=80):
    settings = model_settings()
    try:
        check_model_address(settings)
        body = json.dumps({"model": settings.model, "messages": messages, "max_tokens": max_tokens}).encode()
        request = urllib.request.Request(settings.url + "/chat/completions", data=body, method="POST", headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {settings.key}"})
        with urllib.request.urlopen(request, timeout=settings.timeout) as response:
            text = json.load(response)["choices"][0]["message"]["content"]
        return Answer(text.strip(), False)
    except Exception as error:
        print(TEXTS[settings.lang].format(reason=why_no_model(error, settings)), flush=True)
        return Answer(sample, True)
