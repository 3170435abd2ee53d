# Release image of playtrace: one binary, configured entirely by PLAYTRACE_* variables.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/playtrace /usr/local/bin/playtrace
ENV PLAYTRACE_LISTEN=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["playtrace"]
CMD ["serve"]
