// Starts GraphiQL on the element #graphiql, talking to the endpoint named in data-endpoint.
// Kept out of the page so that the page's Content-Security-Policy can forbid inline scripts.
(function () {
  "use strict";
  var container = document.getElementById("graphiql");
  var fetcher = GraphiQL.createFetcher({
    url: container.dataset.endpoint,
    headers: { Accept: "application/graphql-response+json, application/json;q=0.9" },
  });
  var defaultQuery = container.dataset.defaultQuery;
  ReactDOM.createRoot(container).render(
    React.createElement(GraphiQL, { fetcher: fetcher, defaultQuery: defaultQuery })
  );
})();
