"""TVM's image operators (``topi.image``): resizing of 1 to 3 spatial axes, crop-and-resize of
boxes, affine sampling grids and grid sampling."""

from topi.image.grid_sample import affine_grid, grid_sample
from topi.image.resize import crop_and_resize, resize1d, resize2d, resize3d

__all__ = ["affine_grid", "crop_and_resize", "grid_sample", "resize1d", "resize2d", "resize3d"]
