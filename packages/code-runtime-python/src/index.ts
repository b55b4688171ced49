export { createPythonCodeRuntime, PythonCodeRuntime } from './python-code-runtime.js';
export {
  interpreterBaselineBytes,
  outputSafetyMultiple,
  type PythonCodeRuntimeSettings,
  pythonExecutableVariable,
  valueDepthLimit,
} from './python-settings.js';
export {
  type ChildFrame,
  childFrameTypes,
  hostFrameTypes,
  wireProtocolVersion,
  zygoteCommandTypes,
  zygoteReportTypes,
} from './wire-frames.js';
