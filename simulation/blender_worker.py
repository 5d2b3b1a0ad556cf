"""Renders the 3D scenes of `simulation/scene3d.py` with Blender's Cycles path tracer (run by the
render environment's Python, which has `bpy`; the referee's own environment never imports this).

    .venv-render/bin/python simulation/blender_worker.py JOBS.json

JOBS.json is a list of scenes, each a plain description (see `scene3d.py`): the camera, the lamps,
the room light, materials and objects (boxes, cylinders, spheres, capsules, plates with holes,
printed decals). Each scene is built afresh, rendered on the CPU (path tracing with the light
tree, then the OpenImageDenoise denoiser on the colour, albedo and normal passes) and written as
linear scene-referred light, float16 `.npy` (height, width, 3 in RGB): the camera's own processing
(exposure, white balance, noise, gamma, JPEG) is done afterwards by `scene3d.develop`, so one
render serves many cameras.

Units: one Blender unit is one pitch of the game's lattice; lattice point (row r, col c) is at
(x, y) = (c, -r) with z up, the board's printed top at z = 0.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import bpy  # the render environment only
import numpy as np
from mathutils import Matrix, Vector

#: Bumped whenever a change here changes what a scene looks like: renders are cached by their
#: description and this number (`scene3d.job_key`), not by this file's bytes.
VERSION = 1

_images: dict[str, object] = {}


def _reset(job: dict) -> bpy.types.Scene:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    _images.clear()
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    cyc = scene.cycles
    cyc.device = "CPU"
    cyc.samples = int(job.get("samples", 24))
    cyc.use_adaptive_sampling = True
    cyc.adaptive_threshold = float(job.get("noise_threshold", 0.03))
    cyc.seed = int(job.get("seed", 0))
    cyc.use_denoising = bool(job.get("denoise", True))
    cyc.denoiser = "OPENIMAGEDENOISE"
    cyc.denoising_input_passes = "RGB_ALBEDO_NORMAL"
    cyc.denoising_prefilter = "ACCURATE"
    cyc.denoising_quality = str(job.get("denoise_quality", "BALANCED"))
    cyc.max_bounces = 6
    cyc.diffuse_bounces = 3
    cyc.glossy_bounces = 3
    cyc.transmission_bounces = 6
    cyc.transparent_max_bounces = 4
    cyc.caustics_reflective = False
    cyc.caustics_refractive = False
    cyc.blur_glossy = 1.0
    scene.render.resolution_x = int(job["width"])
    scene.render.resolution_y = int(job["height"])
    scene.render.resolution_percentage = 100
    scene.render.threads_mode = "FIXED"
    scene.render.threads = int(job.get("threads", 1))
    scene.render.film_transparent = False
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    scene.view_settings.exposure = 0.0
    scene.view_settings.gamma = 1.0
    scene.render.image_settings.file_format = "OPEN_EXR"
    scene.render.image_settings.color_depth = "32"
    scene.render.image_settings.exr_codec = "ZIP"
    return scene


def _link(scene, obj) -> None:
    scene.collection.objects.link(obj)


def _aim(obj, target, up=(0.0, 0.0, 1.0)) -> None:
    """Turn `obj` (a camera or a lamp, which look along their -Z) towards `target`."""
    direction = Vector(target) - obj.location
    obj.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()
    if up is not None:
        # Roll so that the image's up is as near `up` as the view allows.
        z = -direction.normalized()
        u = Vector(up)
        x = u.cross(z)
        if x.length < 1e-6:
            return
        x.normalize()
        y = z.cross(x)
        obj.matrix_world = Matrix(
            (
                (x[0], y[0], z[0], obj.location[0]),
                (x[1], y[1], z[1], obj.location[1]),
                (x[2], y[2], z[2], obj.location[2]),
                (0, 0, 0, 1),
            )
        )


def _camera(scene, cam: dict) -> None:
    data = bpy.data.cameras.new("camera")
    data.lens = float(cam["lens_mm"])
    data.sensor_fit = "HORIZONTAL"
    data.sensor_width = float(cam["sensor_mm"])
    data.shift_x = float(cam.get("shift_x", 0.0))
    data.shift_y = float(cam.get("shift_y", 0.0))
    data.clip_start = 0.05
    data.clip_end = 1000.0
    if cam.get("fstop"):
        data.dof.use_dof = True
        data.dof.aperture_fstop = float(cam["fstop"])
        data.dof.focus_distance = float(cam["focus_distance"])
    obj = bpy.data.objects.new("camera", data)
    obj.location = Vector(cam["location"])
    _link(scene, obj)
    _aim(obj, cam["target"], cam.get("up", (0.0, 1.0, 0.0)))
    scene.camera = obj


def _world(scene, world: dict) -> None:
    w = bpy.data.worlds.new("room")
    scene.world = w
    w.use_nodes = True
    nodes, links = w.node_tree.nodes, w.node_tree.links
    bg = nodes["Background"]
    top = world.get("colour", (0.5, 0.5, 0.5))
    bottom = world.get("floor", top)
    # A room brighter above than below: a gradient on the view direction's height.
    coord = nodes.new("ShaderNodeTexCoord")
    sep = nodes.new("ShaderNodeSeparateXYZ")
    ramp = nodes.new("ShaderNodeValToRGB")
    links.new(coord.outputs["Generated"], sep.inputs[0])
    links.new(sep.outputs["Z"], ramp.inputs["Fac"])
    ramp.color_ramp.elements[0].position = 0.3
    ramp.color_ramp.elements[0].color = (*bottom, 1.0)
    ramp.color_ramp.elements[1].position = 0.7
    ramp.color_ramp.elements[1].color = (*top, 1.0)
    links.new(ramp.outputs["Color"], bg.inputs["Color"])
    bg.inputs["Strength"].default_value = float(world.get("strength", 0.3))


def _lamp(scene, lamp: dict, k: int) -> None:
    kind = lamp["kind"]
    if kind == "area":
        data = bpy.data.lights.new(f"lamp{k}", "AREA")
        data.shape = lamp.get("shape", "RECTANGLE")
        sx, sy = lamp.get("size", (1.0, 1.0))
        data.size, data.size_y = float(sx), float(sy)
        if "spread" in lamp:
            data.spread = math.radians(float(lamp["spread"]))
    elif kind == "spot":
        data = bpy.data.lights.new(f"lamp{k}", "SPOT")
        data.shadow_soft_size = float(lamp.get("radius", 0.1))
        data.spot_size = math.radians(float(lamp.get("cone", 90)))
        data.spot_blend = float(lamp.get("blend", 0.5))
    else:
        data = bpy.data.lights.new(f"lamp{k}", "POINT")
        data.shadow_soft_size = float(lamp.get("radius", 0.1))
    data.energy = float(lamp["power"])
    data.color = tuple(lamp.get("colour", (1.0, 1.0, 1.0)))
    obj = bpy.data.objects.new(f"lamp{k}", data)
    obj.location = Vector(lamp["location"])
    _link(scene, obj)
    if "target" in lamp:
        _aim(obj, lamp["target"], None)


def _image(path: str, colour: bool = True):
    if path not in _images:
        img = bpy.data.images.load(path)
        img.colorspace_settings.name = "sRGB" if colour else "Non-Color"
        _images[path] = img
    return _images[path]


def _material(name: str, m: dict):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*m.get("colour", (0.8, 0.8, 0.8)), 1.0)
    bsdf.inputs["Roughness"].default_value = float(m.get("roughness", 0.5))
    bsdf.inputs["Metallic"].default_value = float(m.get("metallic", 0.0))
    bsdf.inputs["IOR"].default_value = float(m.get("ior", 1.5))
    if m.get("coat"):
        bsdf.inputs["Coat Weight"].default_value = float(m["coat"])
        bsdf.inputs["Coat Roughness"].default_value = float(m.get("coat_roughness", 0.05))
    if m.get("subsurface"):
        bsdf.inputs["Subsurface Weight"].default_value = float(m["subsurface"])
        bsdf.inputs["Subsurface Radius"].default_value = tuple(m.get("subsurface_radius", (0.3, 0.12, 0.08)))
        bsdf.inputs["Subsurface Scale"].default_value = float(m.get("subsurface_scale", 0.1))
    if m.get("transmission"):
        bsdf.inputs["Transmission Weight"].default_value = float(m["transmission"])
    colour_out = None
    if m.get("texture"):
        tex = nodes.new("ShaderNodeTexImage")
        tex.image = _image(m["texture"])
        tex.extension = "EXTEND"
        tex.interpolation = "Cubic"
        if m.get("projection") == "top":
            # The print seen from above: the texture spans the board rectangle `rect` (x0, y0, x1, y1)
            # of board coordinates, whatever object carries it (its top faces show it).
            x0, y0, x1, y1 = m["rect"]
            geo = nodes.new("ShaderNodeNewGeometry")
            mapping = nodes.new("ShaderNodeMapping")
            mapping.vector_type = "POINT"
            # u = (X - x0) / (x1 - x0); v = 1 - (y - y0) / (y1 - y0) with y = -Y.
            mapping.inputs["Scale"].default_value = (1 / (x1 - x0), 1 / (y1 - y0), 1.0)
            mapping.inputs["Location"].default_value = (-x0 / (x1 - x0), 1 + y0 / (y1 - y0), 0.0)
            links.new(geo.outputs["Position"], mapping.inputs["Vector"])
            links.new(mapping.outputs["Vector"], tex.inputs["Vector"])
        else:
            uv = nodes.new("ShaderNodeUVMap")
            links.new(uv.outputs["UV"], tex.inputs["Vector"])
        colour_out = tex.outputs["Color"]
    if m.get("grain"):
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = float(m.get("grain_scale", 3.0))
        noise.inputs["Detail"].default_value = 4.0
        mix = nodes.new("ShaderNodeMix")
        mix.data_type = "RGBA"
        mix.blend_type = "MULTIPLY"
        mix.inputs["Factor"].default_value = float(m["grain"])
        if colour_out is None:
            mix.inputs["A"].default_value = (*m.get("colour", (0.8, 0.8, 0.8)), 1.0)
        else:
            links.new(colour_out, mix.inputs["A"])
        ramp = nodes.new("ShaderNodeMapRange")
        ramp.inputs["To Min"].default_value = 0.75
        ramp.inputs["To Max"].default_value = 1.25
        links.new(noise.outputs["Fac"], ramp.inputs["Value"])
        comb = nodes.new("ShaderNodeCombineColor")
        for ch in ("Red", "Green", "Blue"):
            links.new(ramp.outputs["Result"], comb.inputs[ch])
        links.new(comb.outputs["Color"], mix.inputs["B"])
        colour_out = mix.outputs["Result"]
    if colour_out is not None:
        links.new(colour_out, bsdf.inputs["Base Color"])
    return mat


def _mesh_object(scene, name: str, verts, faces, material, uvs=None, smooth=False):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(v) for v in verts], [], [tuple(f) for f in faces])
    if uvs is not None:
        layer = mesh.uv_layers.new(name="UVMap")
        for poly in mesh.polygons:
            for li in poly.loop_indices:
                layer.data[li].uv = uvs[mesh.loops[li].vertex_index]
    mesh.update()
    if smooth:
        mesh.shade_smooth()
    obj = bpy.data.objects.new(name, mesh)
    obj.data.materials.append(material)
    _link(scene, obj)
    return obj


def _box(size, bevel: float = 0.0):
    sx, sy, sz = (s / 2 for s in size)
    verts = [(x, y, z) for z in (-sz, sz) for y in (-sy, sy) for x in (-sx, sx)]
    faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    return verts, faces


def _place(obj, o: dict) -> None:
    obj.location = Vector(o.get("location", (0.0, 0.0, 0.0)))
    if o.get("out_of_view"):  # something beside the camera's view: it casts shadows, is not seen
        obj.visible_camera = False
    rot = o.get("rotation", (0.0, 0.0, 0.0))
    obj.rotation_euler = tuple(math.radians(a) for a in rot)
    if o.get("bevel"):
        mod = obj.modifiers.new("bevel", "BEVEL")
        mod.width = float(o["bevel"])
        mod.segments = 2
        mod.limit_method = "ANGLE"


def _cylinder_mesh(
    radius: float, depth: float, n: int = 32
) -> tuple[list[tuple[float, float, float]], list[tuple[int, ...]]]:
    verts: list[tuple[float, float, float]] = []
    faces: list[tuple[int, ...]] = []
    for z in (-depth / 2, depth / 2):
        for k in range(n):
            a = 2 * math.pi * k / n
            verts.append((radius * math.cos(a), radius * math.sin(a), z))
    for k in range(n):
        j = (k + 1) % n
        faces.append((k, j, n + j, n + k))
    faces.append(tuple(range(n - 1, -1, -1)))
    faces.append(tuple(range(n, 2 * n)))
    return verts, faces


def _object(scene, o: dict, materials: dict, k: int) -> None:
    shape = o["shape"]
    mat = materials[o["material"]]
    name = f"{shape}{k}"
    if shape == "box":
        verts, faces = _box(o["size"])
        obj = _mesh_object(scene, name, verts, faces, mat)
        _place(obj, o)
    elif shape == "cylinder":
        verts, faces = _cylinder_mesh(float(o["radius"]), float(o["depth"]), int(o.get("segments", 40)))
        obj = _mesh_object(scene, name, verts, faces, mat)
        _place(obj, o)
        obj.data.shade_smooth()
        obj.data.set_sharp_from_angle(angle=math.radians(40))
    elif shape == "sphere":
        bpy.ops.mesh.primitive_uv_sphere_add(segments=48, ring_count=24, radius=float(o["radius"]))
        obj = bpy.context.active_object
        obj.name = name
        obj.data.materials.append(mat)
        bpy.ops.object.shade_smooth()
        _place(obj, o)
        sub = obj.modifiers.new("smooth", "SUBSURF")
        sub.levels = sub.render_levels = 1
    elif shape == "ellipsoid":
        bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=1.0)
        obj = bpy.context.active_object
        obj.name = name
        obj.data.materials.append(mat)
        bpy.ops.object.shade_smooth()
        obj.scale = tuple(o["radii"])
        _place(obj, o)
    elif shape == "capsule":
        _capsule(scene, name, o, mat)
        return
    elif shape == "decal":
        x0, y0, x1, y1 = o["rect"]
        z = float(o.get("z", 0.0))
        verts = [(x0, -y1, z), (x1, -y1, z), (x1, -y0, z), (x0, -y0, z)]
        uvs = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
        obj = _mesh_object(scene, name, verts, [(0, 1, 2, 3)], mat, uvs)
        if o.get("rotation"):
            # Turn about the decal's own centre.
            cx, cy = (x0 + x1) / 2, -(y0 + y1) / 2
            obj.data.transform(Matrix.Translation((-cx, -cy, 0)))
            obj.location = (cx, cy, 0)
            obj.rotation_euler = tuple(math.radians(a) for a in o["rotation"])
    elif shape == "plate":
        _plate(scene, name, o, mat)
        return
    else:
        raise ValueError(f"unknown shape {shape!r}")


def _capsule(scene, name: str, o: dict, mat) -> None:
    """A tapered limb from `from` to `to` (radii `radius`, `radius_to`), rounded at both ends."""
    a, b = Vector(o["from"]), Vector(o["to"])
    r0, r1 = float(o["radius"]), float(o.get("radius_to", o["radius"]))
    axis = b - a
    length = axis.length
    n, rings = 24, 8
    verts, faces = [], []
    # A profile along the axis: a half sphere at each end and a cone between.
    profile = []
    for k in range(rings + 1):
        t = math.pi / 2 * (1 - k / rings)
        profile.append((-r0 * math.sin(t), r0 * math.cos(t)))
    for k in range(rings + 1):
        t = math.pi / 2 * k / rings
        profile.append((length + r1 * math.sin(t), r1 * math.cos(t)))
    for z, rad in profile:
        for j in range(n):
            ang = 2 * math.pi * j / n
            verts.append((rad * math.cos(ang), rad * math.sin(ang), z))
    for i in range(len(profile) - 1):
        for j in range(n):
            p, q = i * n + j, i * n + (j + 1) % n
            faces.append((p, q, q + n, p + n))
    obj = _mesh_object(scene, name, verts, faces, mat, smooth=True)
    obj.location = a
    obj.rotation_euler = axis.to_track_quat("Z", "Y").to_euler()


def _plate(scene, name: str, o: dict, mat) -> None:
    """A flat plate (`size`, centred at `location`) with round holes through it ((x, y, radius) in
    world x, y), made with one boolean difference."""
    verts, faces = _box(o["size"])
    obj = _mesh_object(scene, name, verts, faces, mat)
    _place(obj, o)
    holes = o.get("holes") or []
    if not holes:
        return
    depth = float(o["size"][2]) * 4
    all_v: list[tuple[float, float, float]] = []
    all_f: list[tuple[int, ...]] = []
    for x, y, r in holes:
        v, f = _cylinder_mesh(float(r), depth, 32)
        base = len(all_v)
        all_v += [(vx + x, vy + y, vz + obj.location[2]) for vx, vy, vz in v]
        all_f += [tuple(i + base for i in face) for face in f]
    cutter = _mesh_object(scene, name + "-holes", all_v, all_f, mat)
    cutter.hide_render = True
    mod = obj.modifiers.new("holes", "BOOLEAN")
    mod.operation = "DIFFERENCE"
    mod.solver = (
        "MANIFOLD" if "MANIFOLD" in {e.identifier for e in mod.bl_rna.properties["solver"].enum_items} else "EXACT"
    )
    mod.object = cutter


def render(job: dict) -> float:
    """Build and render one scene; returns the seconds it took."""
    start = time.time()
    scene = _reset(job)
    _camera(scene, job["camera"])
    _world(scene, job.get("world", {}))
    for k, lamp in enumerate(job.get("lamps", [])):
        _lamp(scene, lamp, k)
    materials = {name: _material(name, m) for name, m in job["materials"].items()}
    for k, o in enumerate(job["objects"]):
        _object(scene, o, materials, k)
    out = Path(job["output"])
    exr = out.with_suffix(".exr")
    scene.render.filepath = str(exr)
    bpy.ops.render.render(write_still=True)
    img = bpy.data.images.load(str(exr))
    w, h = img.size
    px = np.empty(w * h * 4, np.float32)
    img.pixels.foreach_get(px)
    rgb = px.reshape(h, w, 4)[::-1, :, :3]  # Blender's rows run bottom-up
    tmp = out.with_suffix(".part.npy")
    np.save(tmp, rgb.astype(np.float16))
    tmp.replace(out)
    exr.unlink()
    return time.time() - start


def main(argv: list[str]) -> int:
    jobs = json.loads(Path(argv[1]).read_text())
    for job in jobs:
        seconds = render(job)
        print(f"rendered {job['output']} in {seconds:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
