"""A correct model helper written unlike the solution: urllib instead of the openai SDK.

The tests check that it passes every model check, and make buggy helpers from it by
replacing one line (tests/test_checks_models.py): keep each replaced line unique.
"""

import json
import os
import urllib.error
import urllib.request
from collections import namedtuple

from model_setup import check_model_address, model_settings, why_no_model

Answer = namedtuple("Answer", "text recorded")


def ask(messages, sample, max_tokens=80):
    base = os.environ.get("AI_URL", "http://ai:4000").rstrip("/")
    timeout = float(os.environ.get("AI_TIMEOUT", "30"))
    settings = model_settings()  # given: AI_KEY and AI_MODEL among them
    body = json.dumps({"model": settings.model, "messages": messages, "max_tokens": max_tokens}).encode()
    request = urllib.request.Request(base + "/v1/chat/completions", data=body, method="POST",
                                     headers={"content-type": "application/json", "authorization": "Bearer " + settings.key})
    try:
        check_model_address(model_settings())  # given: nothing listens, said at once
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Answer(json.load(response)["choices"][0]["message"]["content"], False)
    except urllib.error.HTTPError as error:
        reason = f"HTTP status {error.code}"
    except Exception as error:
        # why_no_model (given) says why, in the run's language.
        slow = isinstance(error, TimeoutError)
        reason = f"no answer within {timeout:g} s" if slow else why_no_model(error, model_settings())
    print(f"Recorded sample: no model answered ({reason}).")
    return Answer(sample, True)
