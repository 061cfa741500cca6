# One image for the API (which also serves the built web app) and the worker; docker-compose.yml picks the command.
#   docker build -t glob-network .                                   # CPU (the default): the API, the mail worker
#   docker build --build-arg VARIANT=cuda -t glob-network:cuda .      # the model workers on NVIDIA GPUs
# (The node agent has an image of its own: node-agent/Dockerfile.)
ARG VARIANT=cpu
ARG NODE_IMAGE=node:20-bookworm-slim
# node-llama-cpp's prebuilt CUDA backend links CUDA 13's runtime and cuBLAS; the driver comes from the host (the NVIDIA
# container toolkit, or the GPU operator on Kubernetes).
ARG CUDA_IMAGE=nvidia/cuda:13.0.0-runtime-ubuntu24.04

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json ./
COPY generated/package.json generated/
COPY engine/package.json engine/
COPY testing/package.json testing/
COPY backend/package.json backend/
COPY node-agent/package.json node-agent/
COPY ui/package.json ui/
COPY frontend/package.json frontend/
RUN npm ci --no-audit --no-fund
COPY generated generated
COPY engine engine
COPY backend backend
# The web app's design tokens and shared components (@glob/ui), bundled into frontend/dist.
COPY ui ui
COPY frontend frontend
RUN npm run build -w backend && npm run build -w frontend && npm prune --omit=dev --no-audit --no-fund

# The base each variant runs on: Node's own image, or NVIDIA's CUDA runtime with Node's binary copied in.
FROM ${NODE_IMAGE} AS cpu-base
FROM ${CUDA_IMAGE} AS cuda-base
COPY --from=build /usr/local/bin/node /usr/local/bin/node

FROM ${VARIANT}-base
ENV NODE_ENV=production PORT=3000 WEB_DIST=/app/frontend/dist
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/generated generated
COPY --from=build /app/engine/package.json engine/
COPY --from=build /app/engine/dist engine/dist
COPY --from=build /app/backend/package.json backend/
COPY --from=build /app/backend/dist backend/dist
# The built-in model catalog (backend/models/catalog.example.json), read at start when MODEL_CATALOG is unset.
COPY --from=build /app/backend/models backend/models
COPY --from=build /app/frontend/dist frontend/dist
# uid 1000 in both bases (node:*'s `node`, ubuntu's `ubuntu`), as the Kubernetes manifests run it.
USER 1000:1000
EXPOSE 3000
CMD ["node", "backend/dist/main.js"]
