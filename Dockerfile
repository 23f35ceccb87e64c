# Kaboom game server: docker build -t kaboom . && docker run -p 8000:8000 -v kaboom-data:/data kaboom
FROM python:3.11-slim

RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md package.json package-lock.json ./
COPY kaboom ./kaboom
COPY solver ./solver
COPY server ./server
COPY bots ./bots
COPY web ./web
RUN pip install --no-cache-dir -e '.[postgres]' && npm ci --omit=dev --no-audit --no-fund

ENV KABOOM_DB=/data/kaboom.db
VOLUME ["/data"]
EXPOSE 8000
CMD ["kaboom", "serve", "--host", "0.0.0.0", "--port", "8000"]
