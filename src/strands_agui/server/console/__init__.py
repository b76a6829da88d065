"""The browser console (page, static assets) and the inspector. Internal."""
