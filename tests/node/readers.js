#!/usr/bin/env node
// Loads foldsim's .fold files with two independent FOLD readers and prints what they compute, as one
// JSON object {path: report}, for tests/test_foldfile.py to compare with foldsim's own frames.
//
//   node tests/node/readers.js A.fold B.fold ...
//
// - `fold` (edemaine/fold): rebuilds the faces of the key frame's planar graph from its vertices and
//   edges alone, links our faces to our edges (edges_faces), and flat-folds the crease pattern by
//   reflecting across every crease (flatFoldedGeometry: coordinates, face orientations, closure error).
// - Rabbit Ear: for every frame (key frame = crease pattern, then each foldedForm frame with its own
//   edge assignments), folds the crease pattern by those assignments in 2D and in 3D, and runs its
//   layer solver on the folded graph. Rabbit Ear 0.9.32's solver gives +1/-1 as "above/below along
//   +z" of the folded coordinates; it is converted here to FOLD's convention (s = +1: f lies on the
//   side g's normal points to) with the faces' winding, as Rabbit Ear's later releases do.
"use strict";

const fs = require("fs");
const fold = require("fold");
const ear = require("rabbit-ear");

// Rabbit Ear logs timings with console.log; stdout carries only the JSON report
console.log = (...args) => console.error(...args);

const copy = (value) => JSON.parse(JSON.stringify(value));

// frame i of a FOLD object, with inherited properties filled in (frame 0 is the key frame)
const frameOf = (doc, i) => {
  const own = (obj) => Object.fromEntries(Object.entries(obj).filter(([k]) => !k.startsWith("file_")));
  if (i === 0) return copy(own(doc));
  const frame = doc.file_frames[i - 1];
  const parent = frame.frame_inherit ? frameOf(doc, frame.frame_parent || 0) : {};
  return { ...parent, ...copy(frame) };
};

const foldReport = (doc) => {
  const keyFrame = frameOf(doc, 0);
  const report = {
    counts: {
      vertices: fold.filter.numVertices(keyFrame),
      edges: fold.filter.numEdges(keyFrame),
      faces: fold.filter.numFaces(keyFrame),
    },
    boundaryEdges: fold.filter.boundaryEdges(keyFrame),
    mountainEdges: fold.filter.mountainEdges(keyFrame),
    valleyEdges: fold.filter.valleyEdges(keyFrame),
  };
  // faces of the planar graph (vertices + edges only)
  const graph = { vertices_coords: keyFrame.vertices_coords, edges_vertices: keyFrame.edges_vertices };
  fold.convert.edges_vertices_to_faces_vertices(graph);
  report.planarFaces = graph.faces_vertices;
  // our faces linked to our edges
  const linked = { ...copy(keyFrame), faces_edges: [] }; // the function fills an existing array
  fold.convert.edges_vertices_to_edges_faces_edges(linked);
  report.edges_faces = linked.edges_faces;
  report.faces_edges = linked.faces_edges;
  // flat-folded by reflection across every crease, from face 0
  const folded = { ...copy(keyFrame), faces_edges: [] };
  report.flatFoldError = fold.convert.flatFoldedGeometry(folded, 0);
  report.flatFoldCoords = folded.vertices_flatFoldCoords;
  report.flatFoldOrientation = folded.faces_flatFoldOrientation;
  return report;
};

const earFrameReport = (doc, i) => {
  const frame = frameOf(doc, i);
  const keyFrame = frameOf(doc, 0);
  const cp = ear.graph({
    vertices_coords: copy(keyFrame.vertices_coords),
    edges_vertices: copy(frame.edges_vertices),
    edges_assignment: copy(frame.edges_assignment),
    edges_foldAngle: copy(frame.edges_foldAngle),
    faces_vertices: copy(frame.faces_vertices),
  });
  const coords2d = ear.graph.makeVerticesCoordsFlatFolded(cp, 0);
  const coords3d = ear.graph.makeVerticesCoordsFolded(cp, 0);
  const folded = ear.graph({
    vertices_coords: copy(coords2d),
    edges_vertices: copy(frame.edges_vertices),
    edges_assignment: copy(frame.edges_assignment),
    edges_foldAngle: copy(frame.edges_foldAngle),
    faces_vertices: copy(frame.faces_vertices),
  });
  const winding = ear.graph.makeFacesWinding(folded);
  const toFold = (orders) => Object.entries(orders).map(([key, value]) => {
    const [f, g] = key.split(" ").map(Number);
    return [f, g, winding[g] ? value : -value];
  });
  const solution = ear.layer.solver(folded);
  return {
    classes: frame.frame_classes || [],
    coords2d,
    coords3d,
    faces_winding: winding,
    layers: solution === undefined ? null : {
      root: toFold(solution.root),
      branches: solution.branches.map((branch) => branch.map(toFold)),
    },
  };
};

const main = () => {
  const out = {};
  for (const path of process.argv.slice(2)) {
    const doc = JSON.parse(fs.readFileSync(path, "utf-8"));
    const frames = 1 + (doc.file_frames || []).length;
    out[path] = {
      fold: foldReport(doc),
      rabbitEar: Array.from({ length: frames }, (_, i) => earFrameReport(doc, i)),
    };
  }
  process.stdout.write(JSON.stringify(out));
};

main();
