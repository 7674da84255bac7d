// Starts the interactive API reference on /docs from the service's own OpenAPI document.
// Loaded as a file (never inline) so the page's Content-Security-Policy needs no 'unsafe-inline' for scripts.
window.addEventListener('DOMContentLoaded', () => {
  window.ui = window.SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger',
    deepLinking: true,
    // No calls to the public validator service: everything stays on this service.
    validatorUrl: null,
    tryItOutEnabled: false,
  });
});
