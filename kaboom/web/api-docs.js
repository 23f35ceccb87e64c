// Starts Swagger UI on /openapi.json. A file rather than an inline script, so the docs page
// needs no 'unsafe-inline' script source; every asset is served by Kaboom itself (offline).
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
  deepLinking: true,
  validatorUrl: null,
});
