// Public API of `agent-verdict`. Sectioned, explicit named exports; no side effects.

// --- trace model and readers ---
export * from './trace/span'
export * from './trace/trace'

// --- taxonomy and diagnosis ---
export * from './diagnosis/taxonomy'

// --- verdicts and the report artifact ---
export * from './verdict/verdict'
export * from './verdict/report'
export * from './verdict/meta'

// --- judges ---
export type * from './judges/types'

// --- cassettes ---

// --- media ---
export { ImageInputError, type ImageInputErrorOptions } from './media/errors'
export { sniffImage, ImageFormatSchema, DetectedKindSchema, type DetectedKind } from './media/sniff'
export { readDimensions, isAnimated, type ImageDimensions } from './media/dimensions'
export { LoadedImageSchema, toImagePart, type LoadedImage } from './media/loaded-image'
export { IMAGE_LIMITS, ImageLimitsSchema, imageLimitsFor, checkImageLimits, type ImageLimits } from './media/limits'
export { fetchImageBytes, clearImageFetchCache, type FetchImageOptions } from './media/fetch'
export { loadImage, type ImageInput, type LoadImageOptions } from './media/load'

// --- metrics ---
