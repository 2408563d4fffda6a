// Renders the OpenAPI document with Swagger UI, served by the gateway itself (no CDN).
window.addEventListener('load', () => {
  window.SwaggerUIBundle({
    url: '/api/ext/v1/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    persistAuthorization: false,
    tryItOutEnabled: false,
  });
});
