// The demo app the in-page agent drives: "City Map Studio", declared as a
// graph (pages, actions, one journey with a high-effect step) so a serving
// port can offer it to a model, plus the page's own tool (set_basemap) and
// the app's view state. No framework: plain objects and a render callback.
// Every journey can be taken again: once published, "Start a new version"
// leads back to editing (whats_here's routeTo finds it), and publishing
// again puts the next version on the public site, through the same
// approval.

/**
 * The app's graph: edit → review → published → (a new version) edit;
 * publishing is high-effect.
 */
export const studioGraph = {
  id: 'studio',
  routeTo: true,
  pages: [{ id: 'edit' }, { id: 'review' }, { id: 'published' }],
  actions: [
    {
      id: 'edit.rename', does: 'Rename the map', on: 'edit', writes: ['map.title'],
      input: {
        type: 'object', properties: { title: { type: 'string', minLength: 1, maxLength: 80 } },
        required: ['title'], additionalProperties: false,
      },
    },
    { id: 'edit.open_review', does: 'Open the publication review of the map', on: 'edit', goTo: 'review', input: 'none' },
    { id: 'review.back', does: 'Go back to editing the map', on: 'review', goTo: 'edit', input: 'none' },
    {
      id: 'review.publish', does: 'Publish the map to the public site', on: 'review', goTo: 'published',
      confirm: true, writes: ['map.published'], input: 'none',
    },
    {
      id: 'published.new_version', does: 'Start a new version of the map (the published one stays on the public site until the next is published)',
      on: 'published', goTo: 'edit', input: 'none',
    },
  ],
  journeys: [
    { id: 'publish', does: 'Publish the map: open its review, then put it on the public site', steps: ['edit.open_review', 'review.publish'] },
  ],
};

/** The page's own tool: a runtime tool the page executes itself. */
export const basemapTool = {
  name: 'set_basemap',
  description: 'Change the basemap of the map preview in the page.',
  inputSchema: {
    type: 'object',
    properties: { style: { type: 'string', enum: ['light', 'dark', 'satellite'] } },
    required: ['style'],
    additionalProperties: false,
  },
};

/**
 * The app's view state, the handlers the port runs for its actions, and how
 * many times each was performed. `view.version` counts the versions put on
 * the public site (0: never published).
 * @param {() => void} changed called after every change, to re-render
 */
export function createStudioApp(changed) {
  const view = { title: 'Demo map', basemap: 'light', layers: [], published: false, version: 0 };
  const handlers = {
    'edit.rename': (input) => { view.title = input.title; changed(); return { title: view.title }; },
    'edit.open_review': () => ({ reviewing: view.title }),
    'review.back': () => ({}),
    'review.publish': async () => {
      await new Promise((r) => setTimeout(r, 150)); // the upload
      view.published = true;
      view.version += 1;
      changed();
      return { url: '/maps/demo', title: view.title, version: view.version };
    },
    'published.new_version': () => ({ editing: view.title, live: view.version }),
  };
  // How many times each action was performed (the browser test reads it).
  const performed = {};
  for (const [id, fn] of Object.entries(handlers)) {
    handlers[id] = (...args) => {
      performed[id] = (performed[id] ?? 0) + 1;
      return fn(...args);
    };
  }
  /** Runs the page tool. */
  function setBasemap(args) {
    const style = args?.style;
    if (!['light', 'dark', 'satellite'].includes(style)) {
      return { status: 'error', deniedReason: `unknown basemap style ${JSON.stringify(style)}; use light, dark or satellite` };
    }
    const was = view.basemap;
    view.basemap = style;
    changed();
    return { status: 'ok', data: { basemap: style, changed: was !== style } };
  }
  return { view, handlers, setBasemap, performed };
}
