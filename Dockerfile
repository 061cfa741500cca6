# One image for the API (which also serves the built web app) and the worker; docker-compose.yml picks the command.
# (The node agent has an image of its own: node-agent/Dockerfile.)
FROM node:20-bookworm-slim AS build
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

FROM node:20-bookworm-slim
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
USER node
EXPOSE 3000
CMD ["node", "backend/dist/main.js"]
