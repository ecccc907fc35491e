// PLACEHOLDER: removed when the component has sources.
