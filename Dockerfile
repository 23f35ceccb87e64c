# syntax=docker/dockerfile:1
# Kaboom's server: docker build -t kaboom . && docker run -p 8000:8000 -v kaboom-data:/data kaboom
# Stage 1 builds the wheel (the whole game: server, page, htmx); stage 2 installs it into a
# slim image with no compiler and no Node, run by a non-root user. tests/packaging/
# test_image_steps.py runs these steps outside Docker. KABOOM_DB can name another database.

FROM python:3.11-slim AS build
# gcc compiles the solver's Cython kernel into the wheel (the final stage needs none).
RUN command -v gcc >/dev/null || (apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*)
WORKDIR /src
# .dockerignore lets in only what the wheel is built from.
COPY . .
RUN --mount=type=cache,target=/root/.cache/pip pip install "build>=1.2" && python -m build --wheel --outdir /dist .

FROM python:3.11-slim
RUN useradd --system --uid 10001 --user-group --no-create-home kaboom \
 && install -d -o kaboom -g kaboom /data
RUN --mount=type=bind,from=build,source=/dist,target=/dist \
    --mount=type=cache,target=/root/.cache/pip \
    pip install --only-binary=:all: "$(ls /dist/kaboom_minesweeper-*.whl)[postgres]"
USER kaboom
WORKDIR /data
ENV KABOOM_DB=/data/kaboom.db
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/health', timeout=4)"]
CMD ["kaboom", "serve", "--host", "0.0.0.0", "--port", "8000"]
